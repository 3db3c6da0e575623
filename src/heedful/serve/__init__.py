"""`heedful serve`: an HTTP API and a web page to translate and explore attention.

from heedful.serve import create_app
app = create_app(["models/es-en"])      # then: uvicorn.run(app, host="127.0.0.1")
"""

from heedful.serve.app import create_app

__all__ = ["create_app"]
