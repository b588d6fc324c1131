"""One folder per benchmark. `leaderboard.scoring.registry` discovers them; nothing here imports them."""
