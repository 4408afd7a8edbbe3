"""{{ cookiecutter.project_name }}: a plugsim {{ cookiecutter.kind | replace('_', ' ') }} plug-in."""

__version__ = "0.1.0"
