// Node: the module's .wasm is read from beside the script (Node's fetch takes no file paths).
if (typeof process == 'object' && typeof require == 'function' && !Module['wasmBinary'] && !Module['wasmModule']) {
  Module['wasmBinary'] = require('fs').readFileSync(require('path').join(__dirname, 'baghchal-node.wasm'));
}
// The process's environment is the program's (BAGHCHAL_TABLEBASE_PATH, HOME, ...), as natively.
if (typeof process == 'object' && typeof process.env == 'object') {
  Module['preRun'] = [function() { Object.assign(ENV, process.env); }];
}
