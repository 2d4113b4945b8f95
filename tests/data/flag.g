A small colour flag drawn for nonoforge's tests (MIT).
Lines before the first line starting with # or : are comments.

#d
   0:   white    background
   1:#  black    the default colour: blocks without a suffix
   r:%  #d52b1e  red
: rows
1 2r
1 2r

3
: columns
2 1
2r 1
2r 1
: end - anything after this line is ignored
