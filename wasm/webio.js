// Standard input and output of the threaded engine in the page's Web Worker (webio.c, webio-pre.js):
// protocol/main.c as it is, its reader blocked in read() on a thread of its own while the
// search threads write their lines, as natively. read() takes the bytes the worker's own
// thread put in the inbox (webio.c) from the page's messages, waiting for them with
// Atomics.wait (a thread of the module may block); write() runs on the worker's own thread,
// which posts each whole line to the page as a message.
mergeInto(LibraryManager.library, {
  fd_read__proxy: '',
  fd_read: function(fd, iov, iovcnt, pnum) {
    var box = Module['_bc_inbox']() >> 2, size = Module['_bc_inbox_size'](), data = (box + 2) << 2;
    var head, tail;
    for (;;) {
      head = Atomics.load(HEAP32, box);
      tail = Atomics.load(HEAP32, box + 1);
      if (head !== tail) break;
      Atomics.wait(HEAP32, box, head);
    }
    var avail = (head - tail) >>> 0, n = 0;
    for (var i = 0; i < iovcnt && n < avail; i++) {
      var ptr = HEAPU32[(iov + i * 8) >> 2], len = HEAPU32[(iov + i * 8 + 4) >> 2];
      for (var j = 0; j < len && n < avail; j++, n++) HEAPU8[ptr + j] = HEAPU8[data + ((tail + n) >>> 0) % size];
    }
    Atomics.store(HEAP32, box + 1, (tail + n) | 0);
    Atomics.notify(HEAP32, box + 1);
    HEAPU32[pnum >> 2] = n;
    return 0;
  },
  fd_write__proxy: 'sync',
  fd_write__sig: 'iiiii',
  fd_write: function(fd, iov, iovcnt, pnum) {
    var num = 0;
    for (var i = 0; i < iovcnt; i++) {
      var ptr = HEAPU32[(iov + i * 8) >> 2], len = HEAPU32[(iov + i * 8 + 4) >> 2];
      if (fd === 1) Module['bcOut'](HEAPU8.slice(ptr, ptr + len));
      num += len;
    }
    HEAPU32[pnum >> 2] = num;
    return 0;
  },
});
