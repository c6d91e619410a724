from runlog.summary import summarize

__all__ = ["summarize"]
