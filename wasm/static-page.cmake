# Writes the static board's index.html: the server's page (tools/obx-server/web/index.html)
# with the manifest and local.js (the engine in a worker when no server answers) before app.js.
# cmake -DIN=<index.html> -DOUT=<file> -P static-page.cmake
file(READ ${IN} page)
set(tag "<script src=\"app.js\" defer></script>")
string(FIND "${page}" "${tag}" at)
if(at LESS 0)
  message(FATAL_ERROR "${IN}: no '${tag}' to put local.js before")
endif()
string(REPLACE "${tag}" "<link rel=\"manifest\" href=\"manifest.webmanifest\">\n  <meta name=\"theme-color\" content=\"#3b2f22\">\n  <script src=\"local.js\"></script>\n  ${tag}" page "${page}")
file(WRITE ${OUT}.tmp "${page}")
file(RENAME ${OUT}.tmp ${OUT})
