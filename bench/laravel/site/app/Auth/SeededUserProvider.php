<?php

namespace App\Auth;

use Illuminate\Auth\GenericUser;
use Illuminate\Contracts\Auth\Authenticatable;
use Illuminate\Contracts\Auth\UserProvider;
use Illuminate\Contracts\Hashing\Hasher;

// SeededUserProvider keeps the users in a PHP file written by seed.php
// (storage/app/users.php), as the Plinth site keeps them in memory: the
// benchmark measures the framework, not a database. opcache caches the file.
class SeededUserProvider implements UserProvider
{
    private array $byId = [];
    private array $byEmail = [];

    public function __construct(private Hasher $hasher, string $file)
    {
        foreach (is_file($file) ? require $file : [] as $row) {
            $this->byId[(string) $row['id']] = $row;
            $this->byEmail[strtolower($row['email'])] = $row;
        }
    }

    public function retrieveById($identifier)
    {
        $row = $this->byId[(string) $identifier] ?? null;

        return $row ? new GenericUser($row) : null;
    }

    public function retrieveByToken($identifier, $token)
    {
        return null; // no "remember me"
    }

    public function updateRememberToken(Authenticatable $user, $token)
    {
    }

    public function retrieveByCredentials(array $credentials)
    {
        $row = $this->byEmail[strtolower(trim((string) ($credentials['email'] ?? '')))] ?? null;

        return $row ? new GenericUser($row) : null;
    }

    public function validateCredentials(Authenticatable $user, array $credentials)
    {
        return $this->hasher->check((string) $credentials['password'], $user->getAuthPassword());
    }
}
