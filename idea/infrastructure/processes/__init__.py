"""Processes: trees and their kill, CLI child processes, run dirs, executables, leftovers."""
