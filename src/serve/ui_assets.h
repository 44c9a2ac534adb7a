// The web UI's files (src/serve/ui, bundled by esbuild at build time and compiled in by
// cmake/embed_files.cmake): serve answers them at / without reading anything from disk.
#pragma once

#include <span>
#include <string_view>

namespace gpucost::serve {

struct UiAsset {
  std::string_view path;  // "/index.html", "/app.js", "/app.css"
  std::string_view content_type;
  std::string_view body;
};

std::span<const UiAsset> UiAssets();

}  // namespace gpucost::serve
