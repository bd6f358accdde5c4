// The worker's side of the line protocol (after the compiled engine): every line goes to
// protocol/uci.c as the native program's reading thread hands it over. The engine has no
// thread of its own here, so a command that searches (go, bench, go perft) returns only when
// done; meanwhile its search yields every 20 ms, and the lines that came are handled then:
// stop, ponderhit and isready at once, as natively during a search; any other line, and every
// line after a stop, once the command running has ended (a search still running refuses
// position, setoption and the like natively, and waiting for it here would wait forever).
// In a browser the lines come and go as postMessage strings, as stockfish.wasm's do; under
// Node (`node baghchal-worker.js`) on standard input and output, whose end stops at once a
// search that would not end by itself, as natively.
var bcReady = false, bcBusy = false, bcStopping = false, bcQueue = [], bcQuit = false;
var bcEnd = {}; // the end of input, queued like a line
var bcEnded = false; // the input has ended: what would not end by itself is stopped when it starts

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
  if (Asyncify.currData) {
    Asyncify.whenDone().then(done);
    // Nothing would stop it any more: a search without a limit ends now, as natively.
    if (bcEnded) Module['_bc_ending']();
  } else {
    done(keep);
  }
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
    // End of input, as natively: what runs and would not end by itself (go infinite, ponder, a
    // go without a limit) is stopped now; the rest of the lines, then quit, once it has ended.
    bcEnded = true;
    if (bcReady && !bcBusy && !bcQueue.length) {
      bcCall(bcEnd);
      return;
    }
    if (bcBusy) Module['_bc_ending']();
    bcQueue.push(bcEnd);
    return;
  }
  line = String(line);
  var word = /^\s*(\S*)/.exec(line)[1];
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
  // The bytes of a line not ended yet, kept as they came: each chunk is looked at once, and a
  // line is joined and decoded once, when its end comes (however long, in linear time; a
  // character cut between two chunks stays whole).
  var bcRest = [];
  process.stdin.on('data', function(chunk) {
    for (var from = 0, nl; (nl = chunk.indexOf(10, from)) >= 0; from = nl + 1) {
      bcRest.push(chunk.subarray(from, nl));
      var line = bcRest.length == 1 ? bcRest[0] : Buffer.concat(bcRest);
      bcRest = [];
      Module['send'](line.toString('utf8'));
    }
    if (from < chunk.length) bcRest.push(chunk.subarray(from));
  });
  process.stdin.on('end', function() {
    if (bcRest.length) Module['send'](Buffer.concat(bcRest).toString('utf8'));
    bcRest = [];
    Module['send'](bcEnd);
  });
} else if (typeof self == 'object' && typeof postMessage == 'function') {
  Module['onLine'] = function(line) { postMessage(line); };
  Module['onQuit'] = function() { self.close(); };
  self.onmessage = function(e) { Module['send'](e.data); };
}
