# cmake -DOUTPUT=file.cc -DDIR=folder -DFILES="index.html;app.js;app.css" -P embed_files.cmake
# Writes a C++ source defining gpucost::serve::UiAssets() (serve/ui_assets.h): each file of DIR
# as bytes (hex escapes, so any content is safe) with its path and content type.
set(entries "")
set(arrays "")
set(n 0)
foreach(name ${FILES})
  file(READ ${DIR}/${name} hex HEX)
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
