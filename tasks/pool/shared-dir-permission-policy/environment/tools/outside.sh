#!/bin/bash
echo outside tool
