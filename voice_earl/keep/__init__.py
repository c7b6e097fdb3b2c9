"""What is kept between games: the SQLite store and its schema, accuracy statistics, the config file
and the log file.

May import ``listening`` and below (accuracy compares words with listening's normaliser), never the
table or the commands.
"""
