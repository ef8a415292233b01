#!/bin/bash
set -e
# step: look at the template, hidden files included
ls -laR /app/templates/flask-starter
# step[easy-to-miss]: copy the directory itself (flask-starter/* would skip .env.example)
cp -r /app/templates/flask-starter /app/projects/inventory-api
ls -laR /app/projects/inventory-api
