#!/bin/bash
set -e
cd /app/sensorstat
# step: fix include path, create output directories and link against libm
cat > Makefile <<'MK'
# sensorstat - summarise sensor readings
CC      = gcc
CFLAGS  = -O2 -Wall -Wextra -Iinclude
LDLIBS  = -lm
OBJDIR  = build
SRCS    = $(wildcard src/*.c)
OBJS    = $(patsubst src/%.c,$(OBJDIR)/%.o,$(SRCS))

all: bin/sensorstat

bin/sensorstat: $(OBJS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $(OBJS) $(LDLIBS)

$(OBJDIR)/%.o: src/%.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -c $< -o $@

clean:
	rm -rf $(OBJDIR) bin

.PHONY: all clean
MK
make
# step[easy-to-miss]: generate header dependency files so header edits trigger rebuilds
sed -i 's/^CFLAGS  = -O2 -Wall -Wextra -Iinclude$/CFLAGS  = -O2 -Wall -Wextra -Iinclude -MMD -MP/' Makefile
echo '-include $(OBJS:.o=.d)' >> Makefile
make clean && make
