from mcp_evals.cli import main

main()
