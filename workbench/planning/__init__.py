"""What a case is and how it is planned: Case, the op table, plan / inputs / golden / verify, the memory guard, the
tiling exploration and the worked examples. Imports ops, judge and core."""
