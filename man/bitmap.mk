# man/bitmap.mk
