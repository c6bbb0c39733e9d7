"""Everything that writes files: atomically, with the umask's permissions, never over an input."""
