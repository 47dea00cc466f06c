"""Player accounts: sign up, sign in/out, password change, profile (language, sound), play-money refill."""
