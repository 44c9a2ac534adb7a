# cmake -DOUTPUT=file.cc -DDIR=folder -DFILES="index.html;app.js;app.css" -P embed_files.cmake
# Writes a C++ source defining gpucost::serve::UiAssets() (serve/ui_assets.h): each file of DIR
# as bytes (hex escapes, so any content is safe) with its path and content type.
include(${CMAKE_CURRENT_LIST_DIR}/embed_hex.cmake)
set(entries "")
set(arrays "")
set(n 0)
foreach(name ${FILES})
  gpucost_hex_literal(${DIR}/${name} body size)
  if(name MATCHES "\\.html$")
    set(type "text/html; charset=utf-8")
  elseif(name MATCHES "\\.js$")
    set(type "text/javascript; charset=utf-8")
  elseif(name MATCHES "\\.css$")
    set(type "text/css; charset=utf-8")
  else()
    set(type "application/octet-stream")
  endif()
  string(APPEND arrays "const char kFile${n}[] =\n${body};\n\n")
  string(APPEND entries "    {\"/${name}\", \"${type}\", std::string_view(kFile${n}, ${size})},\n")
  math(EXPR n "${n} + 1")
endforeach()
file(WRITE ${OUTPUT}.tmp
"// Generated from ${DIR} by cmake/embed_files.cmake. Do not edit.\n"
"#include \"serve/ui_assets.h\"\n\n"
"namespace gpucost::serve {\n"
"namespace {\n\n"
"${arrays}"
"const UiAsset kAssets[] = {\n${entries}};\n\n"
"}  // namespace\n\n"
"std::span<const UiAsset> UiAssets() { return kAssets; }\n\n"
"}  // namespace gpucost::serve\n")
# Rewritten only when the bytes change, so that an unchanged UI recompiles nothing.
file(COPY_FILE ${OUTPUT}.tmp ${OUTPUT} ONLY_IF_DIFFERENT)
file(REMOVE ${OUTPUT}.tmp)
