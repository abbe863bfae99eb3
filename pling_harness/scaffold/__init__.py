"""`pling-tutorial new`: a new tutorial, written from the templates in `templates/`."""
