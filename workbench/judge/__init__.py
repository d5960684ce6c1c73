"""How results are judged: precision standards and reports, performance criteria and the model behind them, the
built-in baseline. Imports only core."""
