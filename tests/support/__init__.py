"""What the tests share: databases, fakes of the layers below, drivers and checks."""
