"""One case run: wb.run and its Result, the prepared launch, the backends (emulator, NPU, replay), records and
reruns. Imports planning and below."""
