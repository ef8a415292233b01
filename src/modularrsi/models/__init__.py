"""Model backends behind one ChatModel interface: LiteLLM, scripted, and the offline ``sim``."""

from modularrsi.models.base import (
    BudgetExceeded,
    ChatModel,
    Completion,
    ContextOverflow,
    Message,
    ModelError,
    ModelUnavailable,
    UnexpectedCall,
    Usage,
)

__all__ = ["BudgetExceeded", "ChatModel", "Completion", "ContextOverflow", "Message", "ModelError",
           "ModelUnavailable", "UnexpectedCall", "Usage"]
