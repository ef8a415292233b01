class FormulaError(ValueError):
    """Syntax or evaluation error in a formula; .pos is the character offset if known."""

    def __init__(self, message, pos=None):
        super().__init__(message if pos is None else f"{message} at position {pos}")
        self.pos = pos
