// The worker's side of the line protocol (after the compiled engine): every line goes to
// protocol/uci.c as the native program's reading thread hands it over. The engine has no
// thread of its own here, so a command that searches (go, bench, go perft) returns only when
// done; meanwhile its search yields every 20 ms, and the lines that came are handled then:
// stop, ponderhit and isready at once, as natively during a search; any other line, and every
// line after a stop, once the command running has ended (a search still running refuses
// position, setoption and the like natively, and waiting for it here would wait forever).
// In a browser the lines come and go as postMessage strings, as stockfish.wasm's do; under
// Node (`node baghchal-worker.js`) on standard input and output.
var bcReady = false, bcBusy = false, bcStopping = false, bcQueue = [], bcQuit = false;
var bcEnd = {}; // the end of input, queued like a line

function bcCall(line) {
  if (line === bcEnd) {
    Module['_bc_end']();
    bcQuit = true;
    bcQueue = [];
    Module['onQuit']();
    return;
  }
  var n = lengthBytesUTF8(line), p = _malloc(n + 1);
  if (!p) {
    Module['onLine']('info string error: out of memory');
    return;
  }
  stringToUTF8(line, p, n + 1);
  bcBusy = true;
  var keep = Module['_bc_line'](p, n);
  var done = function(keep) {
    _free(p);
    bcBusy = false;
    bcStopping = false;
    if (!keep) {
      bcQuit = true;
      bcQueue = [];
      Module['onQuit']();
      return;
    }
    while (!bcBusy && !bcQuit && bcQueue.length) bcCall(bcQueue.shift());
  };
  if (Asyncify.currData)
    Asyncify.whenDone().then(done);
  else
    done(keep);
}

// Handled during a command that has not ended: the engine is inside its search then.
function bcReenter(line) {
  var n = lengthBytesUTF8(line), p = _malloc(n + 1);
  if (!p) return;
  stringToUTF8(line, p, n + 1);
  Module['_bc_line'](p, n);
  _free(p);
}

Module['send'] = function(line) {
  if (bcQuit) return;
  if (line === bcEnd) {
    if (bcReady && !bcBusy && !bcQueue.length) bcCall(bcEnd);
    else bcQueue.push(bcEnd);
    return;
  }
  line = String(line);
  var word = line.trim().split(/\s+/)[0];
  if (!bcReady || (!bcBusy && bcQueue.length)) {
    bcQueue.push(line);
  } else if (!bcBusy) {
    bcCall(line);
  } else if (!bcStopping && !bcQueue.length && (word === 'stop' || word === 'ponderhit' || word === 'isready')) {
    if (word === 'stop') bcStopping = true;
    bcReenter(line);
  } else {
    // quit ends the search first, as natively.
    if (word === 'quit' && !bcStopping) {
      bcStopping = true;
      bcReenter('stop');
    }
    bcQueue.push(line);
  }
};

Module['onRuntimeInitialized'] = function() {
  if (!Module['_bc_start']()) {
    Module['onLine']('info string error: out of memory');
    return;
  }
  bcReady = true;
  var q = bcQueue;
  bcQueue = [];
  q.forEach(Module['send']);
};

if (ENVIRONMENT_IS_NODE) {
  Module['onLine'] = function(line) { require('fs').writeSync(1, line + '\n'); };
  Module['onQuit'] = function() { process.exit(0); };
  var bcRest = '';
  process.stdin.on('data', function(chunk) {
    var lines = (bcRest + chunk.toString('utf8')).split('\n');
    bcRest = lines.pop();
    lines.forEach(Module['send']);
  });
  // End of input: once the command running has ended (a go infinite must be stopped first:
  // the worker cannot tell it from a search that ends by itself while it runs), as natively.
  process.stdin.on('end', function() {
    if (bcRest) Module['send'](bcRest);
    Module['send'](bcEnd);
  });
} else if (typeof self == 'object' && typeof postMessage == 'function') {
  Module['onLine'] = function(line) { postMessage(line); };
  Module['onQuit'] = function() { self.close(); };
  self.onmessage = function(e) { Module['send'](e.data); };
}
