"""What is kept between games: the SQLite store and its schema, accuracy statistics, the config file
and the log file.

May import ``words`` and below (accuracy compares words with the words' normaliser and aligner), never
``listening``, the table or the commands.
"""
