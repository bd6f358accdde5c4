// The threaded page worker (baghchal-worker-mt.js): the page's lines, as postMessage strings
// as stockfish.wasm's are, go to the engine's standard input (the inbox of webio.c), in order,
// each with its newline; its standard output comes back a line a message. No databases
// here (they are the server's): BAGHCHAL_TABLEBASE_PATH empty turns them off.
// Only in the worker the page started: the module's threads run this file too, in workers
// of their own whose messages are the runtime's (Module.ENVIRONMENT_IS_PTHREAD is set there
// before this runs; ENVIRONMENT_IS_PTHREAD itself is not yet).
if (typeof WorkerGlobalScope != 'undefined' && self instanceof WorkerGlobalScope && !Module['ENVIRONMENT_IS_PTHREAD']) {
  Module['preRun'] = [function() { ENV['BAGHCHAL_TABLEBASE_PATH'] = ''; }];
  var bcPending = [], bcReady = false, bcTimer = null;
  // As many of the waiting bytes as the inbox has room for; the rest when the reader has
  // made room (checked every few milliseconds: the page's lines are short and few).
  var bcPush = function() {
    bcTimer = null;
    if (!bcReady) return;
    var box = Module['_bc_inbox']() >> 2, size = Module['_bc_inbox_size'](), data = (box + 2) << 2;
    while (bcPending.length) {
      var bytes = bcPending[0];
      var head = Atomics.load(HEAP32, box), tail = Atomics.load(HEAP32, box + 1);
      var room = size - ((head - tail) >>> 0);
      if (room < bytes.length) break;
      for (var i = 0; i < bytes.length; i++) HEAPU8[data + ((head + i) >>> 0) % size] = bytes[i];
      Atomics.store(HEAP32, box, (head + bytes.length) | 0);
      Atomics.notify(HEAP32, box);
      bcPending.shift();
    }
    if (bcPending.length) bcTimer = setTimeout(bcPush, 5);
  };
  self.onmessage = function(m) {
    // A line longer than the inbox cannot be taken whole; the protocol refuses such lines anyway.
    var bytes = new TextEncoder().encode(String(m.data).slice(0, 16384) + '\n');
    bcPending.push(bytes);
    if (!bcTimer) bcPush();
  };
  Module['onRuntimeInitialized'] = function() { bcReady = true; bcPush(); };
  var bcCarry = '', bcDecoder = new TextDecoder();
  Module['bcOut'] = function(bytes) {
    var text = bcCarry + bcDecoder.decode(bytes, { stream: true });
    var lines = text.split('\n');
    bcCarry = lines.pop();
    for (var i = 0; i < lines.length; i++) postMessage(lines[i]);
  };
}
