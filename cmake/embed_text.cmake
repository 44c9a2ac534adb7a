# cmake -DINPUT=file -DOUTPUT=file.cc -P embed_text.cmake
# Writes a C++ source defining gpucost::pricing_internal::kBuiltinCatalogText, the bytes of INPUT
# as a string (hex escapes, so any content is safe).
file(READ ${INPUT} hex HEX)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "\\\\x\\1" escaped "${hex}")
string(LENGTH "${escaped}" n)
set(body "")
set(i 0)
while(i LESS n)
  string(SUBSTRING "${escaped}" ${i} 400 piece)
  string(APPEND body "    \"${piece}\"\n")
  math(EXPR i "${i} + 400")
endwhile()
file(WRITE ${OUTPUT}
"// Generated from ${INPUT} by cmake/embed_text.cmake. Do not edit.\n"
"#include <string_view>\n\n"
"namespace gpucost::pricing_internal {\n\n"
"extern const std::string_view kBuiltinCatalogText;\n"
"const std::string_view kBuiltinCatalogText =\n${body};\n\n"
"}  // namespace gpucost::pricing_internal\n")
