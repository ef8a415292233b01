#!/bin/bash
set -e
# step: look at Ana's home directory
ls -la /app/home/ana /app/dotfiles
# step[easy-to-miss]: replace the old file (-f), target first, absolute path
ln -sf /app/dotfiles/gitconfig /app/home/ana/.gitconfig
ls -l /app/home/ana
