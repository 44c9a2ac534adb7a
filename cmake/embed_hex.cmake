# Shared by the embed_*.cmake scripts: gpucost_hex_literal(PATH BODY SIZE) sets BODY to the bytes
# of PATH as adjacent C++ string literals of hex escapes (any content is safe), 100 bytes a line,
# and SIZE to their number.
function(gpucost_hex_literal path body_var size_var)
  file(READ ${path} hex HEX)
  string(LENGTH "${hex}" hex_length)
  math(EXPR size "${hex_length} / 2")
  string(REGEX REPLACE "([0-9a-f][0-9a-f])" "\\\\x\\1" escaped "${hex}")
  string(LENGTH "${escaped}" length)
  set(body "")
  set(i 0)
  while(i LESS length)
    string(SUBSTRING "${escaped}" ${i} 400 piece)
    string(APPEND body "    \"${piece}\"\n")
    math(EXPR i "${i} + 400")
  endwhile()
  set(${body_var} "${body}" PARENT_SCOPE)
  set(${size_var} ${size} PARENT_SCOPE)
endfunction()
