export GNUPGHOME=$HOME/.gnupg
export PATH=$HOME/bin:$PATH
