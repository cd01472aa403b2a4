"""Data sets the lessons use, read from local files (never downloaded at run time)."""
