// The worker's side of the line protocol (after the compiled engine): every line goes to
// protocol/uci.c as the native program's reading thread hands it over. The engine has no
// thread of its own here, so a command that searches (go, bench, go perft) returns only when
// done; meanwhile its search yields every 20 ms, and the lines that came are handled then, as
// natively during a search: a position, a refused or unknown line, isready, stop, ponderhit at
// once. What natively waits for the search first (go, ucinewgame, quit) stops it and waits for
// it here too, and so does every line after it or after a stop, handled in order once the
// command has ended, the next search going on with the rest the same way.
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
  var done = function(keep, later) {
    _free(p);
    bcBusy = false;
    bcStopping = false;
    if (!keep) {
      bcQuit = true;
      bcQueue = [];
      Module['onQuit']();
      return;
    }
    // Called at once, the caller goes on with the queue itself.
    if (later) bcDrain();
  };
  if (Asyncify.currData) {
    Asyncify.whenDone().then(function(keep) { done(keep, true); });
    // Nothing would stop it any more: a search without a limit ends now, as natively.
    if (bcEnded) Module['_bc_ending']();
  } else {
    done(keep);
  }
}

// The first word of a line, as protocol/uci.c splits it.
function bcWord(line) {
  return /^[ \t\r]*([^ \t\r]*)/.exec(line)[1];
}

// Lines that natively end the search running and wait for it (halt_wait in protocol/uci.c):
// here they wait for the command to return. go perft and go prove are refused at once during
// a search (the worker has no database to prove with).
function bcWaits(line) {
  if (line === bcEnd) return true;
  var w = line.split(/[ \t\r]+/).filter(function(x) { return x; });
  if (w[0] === 'go') return !(w[1] && /^(perft|prove)$/i.test(w[1]));
  return w[0] === 'ucinewgame' || w[0] === 'quit';
}

// A line while a command runs: at once, or queued (in order) behind the command's end.
function bcDuring(line) {
  if (bcStopping || bcQueue.length || bcWaits(line)) {
    // What waits ends the search first, as natively (end of input has done so if it could).
    if (!bcStopping && line !== bcEnd && bcWaits(line)) {
      bcStopping = true;
      bcReenter('stop');
    }
    bcQueue.push(line);
    return;
  }
  if (bcWord(line) === 'stop') bcStopping = true;
  bcReenter(line);
}

// The lines queued, once the command they waited for has ended: in order, the next command
// that runs taking the rest as lines sent during it.
function bcDrain() {
  while (!bcQuit && bcQueue.length) {
    var line = bcQueue.shift();
    if (!bcBusy) bcCall(line);
    else {
      var rest = bcQueue;
      bcQueue = [];
      bcDuring(line);
      rest.forEach(bcDuring);
      return;
    }
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
  if (!bcReady || (!bcBusy && bcQueue.length)) bcQueue.push(line);
  else if (!bcBusy) bcCall(line);
  else bcDuring(line);
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
