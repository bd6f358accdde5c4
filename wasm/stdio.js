// Standard input and output of the Node engine: read and written with Node's fs by the
// thread that calls, never proxied to the main thread. The protocol's reader blocks in
// read() on its own thread while the search thread writes its lines, as natively. (With
// nofiles.js: no files.)
mergeInto(LibraryManager.library, {
  fd_write__proxy: '',
  fd_write: function(fd, iov, iovcnt, pnum) {
    var fs = require('fs'), num = 0;
    for (var i = 0; i < iovcnt; i++) {
      var ptr = HEAPU32[(iov + i * 8) >> 2], len = HEAPU32[(iov + i * 8 + 4) >> 2];
      // A copy: fs cannot write from a SharedArrayBuffer view on every Node version.
      var bytes = HEAPU8.slice(ptr, ptr + len);
      for (var off = 0; off < len;) {
        try {
          off += fs.writeSync(fd, bytes, off, len - off);
        } catch (e) {
          if (e.code !== 'EAGAIN') return 29; /* EIO */
        }
      }
      num += len;
    }
    HEAPU32[pnum >> 2] = num;
    return 0;
  },
  fd_read__proxy: '',
  fd_read: function(fd, iov, iovcnt, pnum) {
    var fs = require('fs'), total = 0;
    for (var i = 0; i < iovcnt; i++) total += HEAPU32[(iov + i * 8 + 4) >> 2];
    var buf = Buffer.alloc(total), n;
    for (;;) {
      try {
        n = fs.readSync(fd, buf, 0, total, null);
        break;
      } catch (e) {
        if (e.code === 'EOF') { n = 0; break; }
        if (e.code !== 'EAGAIN') return 29; /* EIO */
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5);
      }
    }
    /* Scattered over the buffers in order, as readv does (musl reads a line into the
     * caller's buffer and the rest into the FILE's). */
    for (var i = 0, off = 0; i < iovcnt && off < n; i++) {
      var ptr = HEAPU32[(iov + i * 8) >> 2], len = Math.min(HEAPU32[(iov + i * 8 + 4) >> 2], n - off);
      HEAPU8.set(buf.subarray(off, off + len), ptr);
      off += len;
    }
    HEAPU32[pnum >> 2] = n;
    return 0;
  },
});
