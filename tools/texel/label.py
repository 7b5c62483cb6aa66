# python3 label.py <4pchess cli> <depth> < FEN4 lines > "FEN4<TAB>score" lines
# 4pchess's score is its centipawns (a knight 300) from the side to move's team's view; fit.py turns it.
import subprocess, sys
cli, depth = sys.argv[1], sys.argv[2]
p = subprocess.Popen([cli], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
for fen in sys.stdin:
    fen = fen.strip()
    if not fen:
        continue
    p.stdin.write(f"position fen {fen}\ngo depth {depth}\n")
    p.stdin.flush()
    score = None
    while True:
        line = p.stdout.readline()
        if not line:
            sys.exit("4pchess died")
        parts = line.split()
        if parts and parts[0] == "info" and "score" in parts:
            score = int(parts[parts.index("score") + 1])
        if parts and parts[0] == "bestmove":
            break
    if score is not None:
        print(f"{fen}\t{score}", flush=True)
# 4pchess spins on a closed stdin: tell it to go.
p.stdin.write("quit\n")
p.stdin.close()
p.wait()
