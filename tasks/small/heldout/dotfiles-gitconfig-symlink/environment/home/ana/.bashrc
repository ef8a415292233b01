export EDITOR=vim
alias ll='ls -la'
