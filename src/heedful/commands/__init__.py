"""One module per `heedful` command: add_arguments(parser) and run(args)."""
