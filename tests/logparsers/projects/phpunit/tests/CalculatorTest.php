<?php

declare(strict_types=1);

namespace Demo\Tests;

use PHPUnit\Framework\TestCase;

final class CalculatorTest extends TestCase
{
    public function testAddsTwoNumbers(): void
    {
        $this->assertSame(3, 1 + 2);
    }

    public function testFailsWithAMultilineMessage(): void
    {
        $this->assertSame("line one\nline two", "line one\nline 2");
    }

    public function testRaisesAnError(): void
    {
        throw new \RuntimeException('boom');
    }

    public function testIsSkipped(): void
    {
        $this->markTestSkipped('needs an extension');
    }

    public function testIsIncomplete(): void
    {
        $this->markTestIncomplete('not finished');
    }

    public function testIsRisky(): void
    {
    }

    /**
     * @dataProvider sums
     */
    public function testAddsFromProvider(int $a, int $b, int $sum): void
    {
        $this->assertSame($sum, $a + $b);
    }

    public static function sums(): array
    {
        return [
            'small numbers' => [1, 1, 2],
            'wrong on purpose' => [2, 2, 5],
            [0, 0, 0],
        ];
    }
}
