# tests/man.mk - the manual pages: one for every public function, one for
# every benchmark program (bench/man/, each listing the options its program
# parses), all rendering without groff warnings (see tests/test_manpages.sh).
TESTS += tests/test_manpages.sh
EXTRA_DIST += tests/test_manpages.sh
