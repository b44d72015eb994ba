# AX_PTHREAD_SIMPLE: the thread flag for the tests that use several threads.
AC_DEFUN([AX_PTHREAD_SIMPLE], [
  AC_SEARCH_LIBS([pthread_create], [pthread], [],
    [AC_MSG_ERROR([POSIX threads are required])])
])
