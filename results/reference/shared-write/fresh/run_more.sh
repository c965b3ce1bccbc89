#!/bin/bash
# Four more alternating rounds (5-8) on run.sh's LUTs, the same bench command.
bash "$(dirname "$0")/rounds.sh" 5 6 7 8
