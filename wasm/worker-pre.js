// Node: the module's .wasm is read from beside the script (Node's fetch takes no file paths).
if (typeof process == 'object' && typeof require == 'function' && !Module['wasmBinary']) {
  Module['wasmBinary'] = require('fs').readFileSync(require('path').join(__dirname, 'baghchal-worker.wasm'));
}
// The environment: under Node the process's, as natively; in a browser none of the
// databases' folders (they are the server's): BAGHCHAL_TABLEBASE_PATH empty turns them off.
Module['preRun'] = [function() {
  if (typeof process == 'object' && typeof process.env == 'object')
    Object.assign(ENV, process.env);
  else
    ENV['BAGHCHAL_TABLEBASE_PATH'] = '';
}];
