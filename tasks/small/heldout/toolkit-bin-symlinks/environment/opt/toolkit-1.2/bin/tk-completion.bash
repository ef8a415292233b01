complete -W 'fmt lint pack' tk
