# data/local.mk - test matrices shipped in the tarball (see data/README.md).
# Automake takes no wildcards: every file is listed.
EXTRA_DIST += \
	data/README.md \
	data/malformed/mangle1.mtx \
	data/malformed/mangle2.mtx \
	data/malformed/mangle3.mtx \
	data/malformed/mangle4.mtx \
	data/malformed/mangled1.mtx \
	data/malformed/mangled2.mtx \
	data/malformed/mangled5.mtx \
	data/malformed/mangled6.mtx \
	data/malformed/mangled9.mtx \
	data/malformed/paru_row0.mtx \
	data/unittest/LFAT5.mtx \
	data/unittest/arrow_klu.mtx \
	data/unittest/dlmc_rn50_mp0.98_bottleneck_1_g1_1_1.mtx \
	data/unittest/dlmc_rn50_mp0.98_bottleneck_1_g1_1_1.smtx \
	data/unittest/email-Eu-core.mtx \
	data/unittest/jagmesh7.mtx \
	data/unittest/karate.mtx \
	data/unittest/lp_afiro.mtx \
	data/unittest/west0067.mtx \
	data/unittest/west0067.mtx.gz \
	data/unittest/young1c.mtx
