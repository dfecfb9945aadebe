<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="ja" sourcelanguage="en">
    <context>
        <name>dice::AboutDialog</name>
        <message>
            <source>About DICE Workbench</source>
            <translation>DICE ワークベンチについて</translation>
        </message>
        <message>
            <source>&lt;h3&gt;DICE Workbench %1&lt;/h3&gt;&lt;p&gt;Generate, infill, test and time CUDA kernels with diffusion language models of the DICE family, and watch the model sculpt each kernel out of masked tokens.&lt;/p&gt;&lt;p&gt;Copyright © 2026 the DICE Workbench developers. This program is free software: you can redistribute it and/or modify it under the terms of the GNU General Public License, version 3 or (at your option) any later version.&lt;/p&gt;&lt;p&gt;Built with Qt, QScintilla, QCustomPlot, LibTorch, NVRTC and CUPTI.&lt;/p&gt;</source>
            <translation>&lt;h3&gt;DICE ワークベンチ %1&lt;/h3&gt;&lt;p&gt;DICE 系の拡散言語モデルで CUDA カーネルを生成・穴埋め・検証・計測し、モデルがマスクされたトークンからカーネルを彫り出していく様子を観察できます。&lt;/p&gt;&lt;p&gt;Copyright © 2026 DICE ワークベンチ開発者。本プログラムはフリーソフトウェアです。GNU 一般公衆利用許諾書のバージョン 3、または（任意で）それ以降のバージョンの条件のもとで再頒布・改変できます。&lt;/p&gt;&lt;p&gt;Qt、QScintilla、QCustomPlot、LibTorch、NVRTC、CUPTI を使用しています。&lt;/p&gt;</translation>
        </message>
        <message>
            <source>The machine is still being checked.</source>
            <translation>マシンを確認しています。</translation>
        </message>
    </context>
    <context>
        <name>dice::FinetuneArea</name>
        <message>
            <source>Phases</source>
            <translation>フェーズ</translation>
        </message>
        <message>
            <source>Rollouts</source>
            <translation>ロールアウト</translation>
        </message>
        <message>
            <source>Policy update</source>
            <translation>方策の更新</translation>
        </message>
        <message>
            <source>Kernel-infilling steps</source>
            <translation>カーネル穴埋めのステップ数</translation>
        </message>
        <message>
            <source>End-to-end steps</source>
            <translation>エンドツーエンドのステップ数</translation>
        </message>
        <message>
            <source>Tasks per step</source>
            <translation>ステップあたりのタスク数</translation>
        </message>
        <message>
            <source>Responses per task</source>
            <translation>タスクあたりの応答数</translation>
        </message>
        <message>
            <source>Dynamic threshold</source>
            <translation>動的しきい値</translation>
        </message>
        <message>
            <source>Learning rate</source>
            <translation>学習率</translation>
        </message>
        <message>
            <source>PPO clip</source>
            <translation>PPO クリップ</translation>
        </message>
        <message>
            <source>KL weight</source>
            <translation>KL の重み</translation>
        </message>
        <message>
            <source>Data schedule: single operators (level 1), then fusions (level 2), then model blocks (level 3), within each phase.</source>
            <translation>データスケジュール: 各フェーズの中で、単一演算子（レベル 1）、融合（レベル 2）、モデルブロック（レベル 3）の順に進みます。</translation>
        </message>
        <message>
            <source>Start fine-tuning</source>
            <translation>ファインチューニングを開始</translation>
        </message>
        <message>
            <source>Reinforcement-learning fine-tuning is not part of this version; its settings are shown for planning.</source>
            <translation>強化学習によるファインチューニングはこのバージョンには含まれていません。設定は計画用に表示しています。</translation>
        </message>
        <message>
            <source>No model is loaded. Reinforcement-learning fine-tuning is not part of this version.</source>
            <translation>モデルが読み込まれていません。強化学習によるファインチューニングはこのバージョンには含まれていません。</translation>
        </message>
    </context>
    <context>
        <name>dice::GenerateArea</name>
        <message>
            <source>What to generate</source>
            <translation>生成する内容</translation>
        </message>
        <message>
            <source>Current task</source>
            <translation>現在のタスク</translation>
        </message>
        <message>
            <source>Free prompt</source>
            <translation>自由プロンプト</translation>
        </message>
        <message>
            <source>Decoding</source>
            <translation>デコード</translation>
        </message>
        <message>
            <source>Block length</source>
            <translation>ブロック長</translation>
        </message>
        <message>
            <source>Denoising steps per block</source>
            <translation>ブロックあたりのデノイズステップ数</translation>
        </message>
        <message>
            <source>Remasking strategy</source>
            <translation>再マスク戦略</translation>
        </message>
        <message>
            <source>Confidence threshold</source>
            <translation>確信度しきい値</translation>
        </message>
        <message>
            <source>Temperature</source>
            <translation>温度</translation>
        </message>
        <message>
            <source>Top-k (0: off)</source>
            <translation>Top-k（0: 無効）</translation>
        </message>
        <message>
            <source>Top-p</source>
            <translation>Top-p</translation>
        </message>
        <message>
            <source>Maximum new tokens</source>
            <translation>最大生成トークン数</translation>
        </message>
        <message>
            <source>Seed</source>
            <translation>シード</translation>
        </message>
        <message>
            <source>Low confidence, static</source>
            <translation>低確信度・静的</translation>
        </message>
        <message>
            <source>Low confidence, dynamic</source>
            <translation>低確信度・動的</translation>
        </message>
        <message>
            <source>Sequential</source>
            <translation>逐次</translation>
        </message>
        <message>
            <source>Entropy bounded</source>
            <translation>エントロピー制限</translation>
        </message>
        <message>
            <source>Generate</source>
            <translation>生成</translation>
        </message>
        <message>
            <source>Stop</source>
            <translation>停止</translation>
        </message>
        <message>
            <source>Describe the kernel to write…</source>
            <translation>書かせたいカーネルを説明してください…</translation>
        </message>
        <message>
            <source>Select a task in the task browser.</source>
            <translation>タスクブラウザでタスクを選んでください。</translation>
        </message>
        <message>
            <source>Model: %1</source>
            <translation>モデル: %1</translation>
        </message>
        <message>
            <source>No model is loaded, so nothing can be generated yet.</source>
            <translation>モデルが読み込まれていないため、まだ生成できません。</translation>
        </message>
    </context>
    <context>
        <name>dice::InfillArea</name>
        <message>
            <source>Fill all holes</source>
            <translation>すべての穴を埋める</translation>
        </message>
        <message>
            <source>The model fills each hole using the rest of the file as context.</source>
            <translation>モデルはファイルの残りの部分を文脈として各穴を埋めます。</translation>
        </message>
        <message>
            <source>No model is loaded, so holes cannot be filled yet. The editor shows the current task's PyTorch module.</source>
            <translation>モデルが読み込まれていないため、まだ穴を埋められません。エディタには現在のタスクの PyTorch モジュールを表示しています。</translation>
        </message>
    </context>
    <context>
        <name>dice::MainWindow</name>
        <message>
            <source>Language</source>
            <translation>言語</translation>
        </message>
        <message>
            <source>The translation for %1 could not be loaded.</source>
            <translation>%1 の翻訳を読み込めませんでした。</translation>
        </message>
        <message>
            <source>DICE Workbench</source>
            <translation>DICE ワークベンチ</translation>
        </message>
        <message>
            <source>Generate</source>
            <translation>生成</translation>
        </message>
        <message>
            <source>Infill</source>
            <translation>穴埋め</translation>
        </message>
        <message>
            <source>Profile</source>
            <translation>プロファイル</translation>
        </message>
        <message>
            <source>Fine-tune</source>
            <translation>ファインチューニング</translation>
        </message>
        <message>
            <source>Watch the model sculpt a kernel out of masked tokens</source>
            <translation>モデルがマスクされたトークンからカーネルを彫り出す様子を見る</translation>
        </message>
        <message>
            <source>Let the model fill the holes of a kernel skeleton</source>
            <translation>カーネルの骨組みの穴をモデルに埋めさせる</translation>
        </message>
        <message>
            <source>Compile, check and time a kernel</source>
            <translation>カーネルをコンパイル・検証・計測する</translation>
        </message>
        <message>
            <source>Fine-tune the model with reinforcement learning</source>
            <translation>強化学習でモデルをファインチューニングする</translation>
        </message>
        <message>
            <source>Tasks</source>
            <translation>タスク</translation>
        </message>
        <message>
            <source>&amp;File</source>
            <translation>ファイル(&amp;F)</translation>
        </message>
        <message>
            <source>Open &amp;task folder…</source>
            <translation>タスクフォルダを開く(&amp;T)…</translation>
        </message>
        <message>
            <source>&amp;Quit</source>
            <translation>終了(&amp;Q)</translation>
        </message>
        <message>
            <source>&amp;View</source>
            <translation>表示(&amp;V)</translation>
        </message>
        <message>
            <source>&amp;Language</source>
            <translation>言語(&amp;L)</translation>
        </message>
        <message>
            <source>&amp;Help</source>
            <translation>ヘルプ(&amp;H)</translation>
        </message>
        <message>
            <source>&amp;About DICE Workbench</source>
            <translation>DICE ワークベンチについて(&amp;A)</translation>
        </message>
        <message>
            <source>About &amp;Qt</source>
            <translation>Qt について(&amp;Q)</translation>
        </message>
        <message numerus="yes">
            <source>%n task file(s) could not be read; the first: %1</source>
            <translation>
                <numerusform>%n 個のタスクファイルを読み込めませんでした。最初のもの: %1</numerusform>
            </translation>
        </message>
        <message>
            <source>Open task folder</source>
            <translation>タスクフォルダを開く</translation>
        </message>
    </context>
    <context>
        <name>dice::ProfileArea</name>
        <message>
            <source>Target:</source>
            <translation>ターゲット:</translation>
        </message>
        <message>
            <source>Compile after edits</source>
            <translation>編集後にコンパイル</translation>
        </message>
        <message>
            <source>Compile</source>
            <translation>コンパイル</translation>
        </message>
        <message>
            <source>Evaluate</source>
            <translation>評価</translation>
        </message>
        <message>
            <source>Evaluation needs a task and a candidate in the native dialect</source>
            <translation>評価にはタスクとネイティブ方言の候補が必要です</translation>
        </message>
        <message>
            <source>No GPU: kernels can be compiled here but not run or timed</source>
            <translation>GPU なし: ここではカーネルをコンパイルできますが、実行や計測はできません</translation>
        </message>
        <message>
            <source>Diagnostics</source>
            <translation>診断</translation>
        </message>
        <message>
            <source>PTX</source>
            <translation>PTX</translation>
        </message>
        <message>
            <source>Resources</source>
            <translation>リソース</translation>
        </message>
        <message>
            <source>Severity</source>
            <translation>重大度</translation>
        </message>
        <message>
            <source>Line</source>
            <translation>行</translation>
        </message>
        <message>
            <source>Column</source>
            <translation>列</translation>
        </message>
        <message>
            <source>Message</source>
            <translation>メッセージ</translation>
        </message>
        <message>
            <source>Kernel</source>
            <translation>カーネル</translation>
        </message>
        <message>
            <source>Registers</source>
            <translation>レジスタ</translation>
        </message>
        <message>
            <source>Shared memory</source>
            <translation>共有メモリ</translation>
        </message>
        <message>
            <source>Stack frame</source>
            <translation>スタックフレーム</translation>
        </message>
        <message>
            <source>Spill stores</source>
            <translation>スピルストア</translation>
        </message>
        <message>
            <source>Spill loads</source>
            <translation>スピルロード</translation>
        </message>
        <message>
            <source>Barriers</source>
            <translation>バリア</translation>
        </message>
        <message>
            <source>This build has no NVRTC: kernels cannot be compiled</source>
            <translation>このビルドには NVRTC がないため、カーネルをコンパイルできません</translation>
        </message>
        <message>
            <source>Compiling for %1…</source>
            <translation>%1 向けにコンパイル中…</translation>
        </message>
        <message>
            <source>error</source>
            <translation>エラー</translation>
        </message>
        <message>
            <source>warning</source>
            <translation>警告</translation>
        </message>
        <message>
            <source>remark</source>
            <translation>注記</translation>
        </message>
        <message>
            <source>%1 B</source>
            <translation>%1 B</translation>
        </message>
        <message numerus="yes">
            <source>Compiled for %1 in %2 ms%3: %n kernel(s), %4 warning(s)</source>
            <translation>
                <numerusform>%1 向けに %2 ms でコンパイルしました%3: カーネル %n 個、警告 %4 件</numerusform>
            </translation>
        </message>
        <message>
            <source> (cached)</source>
            <translation>（キャッシュ）</translation>
        </message>
        <message numerus="yes">
            <source>Compilation failed: %n error(s)</source>
            <translation>
                <numerusform>コンパイル失敗: エラー %n 件</numerusform>
            </translation>
        </message>
    </context>
    <context>
        <name>dice::SystemStatus</name>
        <message>
            <source>Checking the machine…</source>
            <translation>マシンを確認中…</translation>
        </message>
        <message>
            <source>No GPU</source>
            <translation>GPU なし</translation>
        </message>
        <message>
            <source>Kernels can be compiled but not run or timed: %1</source>
            <translation>カーネルはコンパイルできますが、実行や計測はできません: %1</translation>
        </message>
        <message>
            <source>GPU: %1 (%2)</source>
            <translation>GPU: %1（%2）</translation>
        </message>
        <message numerus="yes">
            <source>%n GPU(s)</source>
            <translation>
                <numerusform>GPU %n 基</numerusform>
            </translation>
        </message>
        <message>
            <source>Driver: CUDA %1</source>
            <translation>ドライバ: CUDA %1</translation>
        </message>
        <message>
            <source>Driver: none</source>
            <translation>ドライバ: なし</translation>
        </message>
        <message>
            <source>CUDA toolkit: %1 · NVRTC %2</source>
            <translation>CUDA ツールキット: %1 · NVRTC %2</translation>
        </message>
        <message>
            <source>LibTorch %1 (CUDA %2)</source>
            <translation>LibTorch %1（CUDA %2）</translation>
        </message>
        <message>
            <source>LibTorch %1 (CPU)</source>
            <translation>LibTorch %1（CPU）</translation>
        </message>
        <message>
            <source>Model: %1</source>
            <translation>モデル: %1</translation>
        </message>
        <message>
            <source>No model loaded</source>
            <translation>モデル未読み込み</translation>
        </message>
    </context>
    <context>
        <name>dice::TaskBrowser</name>
        <message>
            <source>Filter tasks</source>
            <translation>タスクを絞り込む</translation>
        </message>
        <message>
            <source>Description</source>
            <translation>説明</translation>
        </message>
        <message>
            <source>Reference</source>
            <translation>リファレンス</translation>
        </message>
        <message>
            <source>PyTorch module</source>
            <translation>PyTorch モジュール</translation>
        </message>
        <message>
            <source>&lt;i&gt;Select a task to see its description and reference.&lt;/i&gt;</source>
            <translation>&lt;i&gt;タスクを選ぶと説明とリファレンスが表示されます。&lt;/i&gt;</translation>
        </message>
        <message>
            <source>Inputs</source>
            <translation>入力</translation>
        </message>
        <message>
            <source>Parameters</source>
            <translation>パラメータ</translation>
        </message>
        <message>
            <source>Tolerance (float32): atol %1, rtol %2</source>
            <translation>許容誤差（float32）: atol %1、rtol %2</translation>
        </message>
    </context>
    <context>
        <name>dice::TaskModel</name>
        <message>
            <source>Level 1: single operators</source>
            <translation>レベル 1: 単一演算子</translation>
        </message>
        <message>
            <source>Level 2: fusions</source>
            <translation>レベル 2: 融合</translation>
        </message>
        <message>
            <source>Level 3: model blocks</source>
            <translation>レベル 3: モデルブロック</translation>
        </message>
        <message>
            <source>Task</source>
            <translation>タスク</translation>
        </message>
        <message>
            <source>Title</source>
            <translation>タイトル</translation>
        </message>
        <message>
            <source>Family</source>
            <translation>系統</translation>
        </message>
    </context>
</TS>
