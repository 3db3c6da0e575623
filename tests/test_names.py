"""heedful.names: names the model is not given."""


def test_spanish_streets_and_squares_are_names_with_their_kind():
    """The bundled es -> en model wrote "Mayor's Plaza", "the Retiro Parkiro", "the Great V."."""
    from heedful.names import street_names

    def found(text, language="es"):
        return [text[a:b] for a, b in street_names(text, language)]

    assert found("Nos vemos en la Plaza Mayor, cerca de la Gran Vía.") == [
        "Plaza Mayor",
        "Gran Vía",
    ]
    assert found("Está en la Avenida de la Constitución.") == ["Avenida de la Constitución"]
    assert found("Vivo en la calle Mayor.") == []  # "calle" in lower case: the model's
    assert found("La plaza es grande.") == [] and found("Plaza grande.") == []
    assert found("Meet me at Times Square.", "en") == []  # English: left to the model
