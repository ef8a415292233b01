import os

queue = os.environ["QUEUE_URL"]
threads = int(os.environ.get("WORKER_THREADS", "1"))
print(f"consuming {queue} with {threads} threads")
