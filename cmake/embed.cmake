# Turn a file into a C array: cmake -DIN=file -DOUT=file.c -DNAME=sym -P embed.cmake
# (the XDP program, compiled at build time, is embedded in dta-translator).
file(READ "${IN}" hex HEX)
string(LENGTH "${hex}" n)
math(EXPR bytes "${n} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," body "${hex}")
string(REGEX REPLACE "(0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,)" "\\1\n" body "${body}")
file(WRITE "${OUT}" "/* Generated from ${IN} by cmake/embed.cmake. */\n#include <stddef.h>\nconst unsigned char ${NAME}[] = {\n${body}\n};\nconst size_t ${NAME}_len = ${bytes};\n")
