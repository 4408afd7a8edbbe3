"""The plugsim SDK: what plug-in authors import.

Module for module the names mirror Heat's ``heat.engine.*`` so that porting a
Heat plug-in is a change of imports. The SDK core depends on the standard
library and PyYAML only; it never imports the simulator or the fake clouds.
"""

__version__ = "0.1.0"
