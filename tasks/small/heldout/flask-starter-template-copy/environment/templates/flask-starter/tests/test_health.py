def test_health(client):
    assert client.get('/health').json == {'ok': True}
