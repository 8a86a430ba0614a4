# The one change a user switching to hwrun makes, as a module of the seed's name: its imports.
