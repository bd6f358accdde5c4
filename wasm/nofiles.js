// No files in the WebAssembly engines: the databases are the server's (tools/obx-server).
// Every path is missing, so TablebasePath and the standard folder say so as they do natively
// for an empty folder. Run by the thread that calls, never proxied to the main thread.
mergeInto(LibraryManager.library, {
  __syscall_open__proxy: '',
  __syscall_open: function() { return -{{{ cDefine('ENOENT') }}}; },
  __syscall_openat__proxy: '',
  __syscall_openat: function() { return -{{{ cDefine('ENOENT') }}}; },
  __syscall_faccessat__proxy: '',
  __syscall_faccessat: function() { return -{{{ cDefine('ENOENT') }}}; },
  __syscall_stat64__proxy: '',
  __syscall_stat64: function() { return -{{{ cDefine('ENOENT') }}}; },
  __syscall_lstat64__proxy: '',
  __syscall_lstat64: function() { return -{{{ cDefine('ENOENT') }}}; },
  __syscall_fstatat64__proxy: '',
  __syscall_fstatat64: function() { return -{{{ cDefine('ENOENT') }}}; },
  __syscall_fstat64__proxy: '',
  __syscall_fstat64: function() { return -{{{ cDefine('EBADF') }}}; },
  __syscall_fcntl64__proxy: '',
  __syscall_fcntl64: function() { return -{{{ cDefine('EBADF') }}}; },
});
