export PATH=$PATH:/opt/tools
