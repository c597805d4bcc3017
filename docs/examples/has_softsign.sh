#!/bin/sh
# A predicate for `onnxtxt shrink`: the candidate (text) still has a Softsign.
grep -q Softsign "$1"
