"""One folder per benchmark. `leaderboard.registry` discovers them; nothing here imports them."""
