# cmake -DINPUT=file -DOUTPUT=file.cc -P embed_text.cmake
# Writes a C++ source defining gpucost::pricing_internal::kBuiltinCatalogText, the bytes of INPUT
# as a string (hex escapes, so any content is safe).
include(${CMAKE_CURRENT_LIST_DIR}/embed_hex.cmake)
gpucost_hex_literal(${INPUT} body size)
file(WRITE ${OUTPUT}
"// Generated from ${INPUT} by cmake/embed_text.cmake. Do not edit.\n"
"#include <string_view>\n\n"
"namespace gpucost::pricing_internal {\n\n"
"extern const std::string_view kBuiltinCatalogText;\n"
"const std::string_view kBuiltinCatalogText =\n${body};\n\n"
"}  // namespace gpucost::pricing_internal\n")
