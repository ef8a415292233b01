#!/bin/bash
set -e
# step: write the script, greeting world when no name is given
cat > /app/bin/greet.sh <<'SH'
#!/bin/bash
echo "Hello, ${1:-world}!"
SH
# step: make it executable
chmod +x /app/bin/greet.sh
/app/bin/greet.sh Ana
